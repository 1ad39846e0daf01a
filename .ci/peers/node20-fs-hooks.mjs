// ESM resolve hook registered by node20-globsync.cjs (Node 20 only): every `import ... from "fs"` or
// `"node:fs"` gets the shim instead, except the shim's own import of the real module.
const SHIM = new URL("./node20-fs-shim.mjs", import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if ((specifier === "fs" || specifier === "node:fs") && context.parentURL !== SHIM) {
    return { url: SHIM, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
