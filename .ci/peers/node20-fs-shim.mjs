// All of `fs`, plus the `globSync` that node20-globsync.cjs put on the CommonJS object (Node 20 only).
import fs from "node:fs";
export * from "node:fs";
export default fs;
export const globSync = fs.globSync;
