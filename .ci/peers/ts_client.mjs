// Drive one subscription with the official TypeScript client (@modelcontextprotocol/client 2.4.0) and
// report each step: connect (the SDK's `auto` negotiation probes server/discover and must land on
// 2026-07-28), open a listen stream for tool-list changes and get the acknowledgement, call
// test_trigger_tool_change and receive notifications/tools/list_changed, call test_close_subscriptions
// and see the subscription end `graceful` (the server's listen result), not `remote` (a drop).
//
// Prints `PASS typescript-sdk: <step>` or `FAIL typescript-sdk: <step>: <why>` per step; exit status 1
// on any failure. Every wait has a timeout, so a silent server fails a step instead of hanging.
//
// Usage: node ts_client.mjs URL [TIMEOUT_MS]   (run with NODE_PATH-free resolution: the driver runs it
// from the peers cache, see run.sh)
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const PEER = "typescript-sdk";
const STEPS = [
  "connect",
  "listen for tools: acknowledgement",
  "test_trigger_tool_change -> notifications/tools/list_changed",
  "test_close_subscriptions -> graceful close (listen result)",
];
const url = process.argv[2];
const timeoutMs = Number(process.argv[3] ?? 10000);
if (!url) {
  console.error("usage: node ts_client.mjs URL [TIMEOUT_MS]");
  process.exit(2);
}

const reported = new Set();
let failed = 0;
const pass = (step, detail) => {
  reported.add(step);
  console.log(`PASS ${PEER}: ${step}${detail ? ` (${detail})` : ""}`);
};
const fail = (step, why) => {
  reported.add(step);
  failed++;
  console.log(`FAIL ${PEER}: ${step}: ${why}`);
};

/** Resolve `promise`, or reject after `timeoutMs` naming `what`. */
function within(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function run() {
  const client = new Client(
    { name: "mcp-tutor-peers", version: "0.1.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  // Change notifications on a listen stream dispatch to the ordinary notification handlers.
  let toolsChanged;
  const toolsChangedSeen = new Promise((resolve) => (toolsChanged = resolve));
  client.setNotificationHandler("notifications/tools/list_changed", (n) => toolsChanged(n));

  const transport = new StreamableHTTPClientTransport(new URL(url));
  try {
    let step = STEPS[0];
    await within(client.connect(transport), "connect");
    const version = client.getNegotiatedProtocolVersion();
    if (version !== "2026-07-28") return fail(step, `negotiated ${JSON.stringify(version)}, expected "2026-07-28"`);
    pass(step, "negotiated 2026-07-28 via server/discover");

    step = STEPS[1];
    // listen() resolves once the acknowledgement has arrived.
    const sub = await within(client.listen({ toolsListChanged: true }), "acknowledgement");
    if (sub.honoredFilter?.toolsListChanged !== true) {
      return fail(step, `acknowledgement did not honour toolsListChanged: ${JSON.stringify(sub.honoredFilter)}`);
    }
    pass(step, `honoured ${JSON.stringify(sub.honoredFilter)}`);

    step = STEPS[2];
    await within(client.callTool({ name: "test_trigger_tool_change", arguments: {} }), "tools/call");
    const note = await within(toolsChangedSeen, "notifications/tools/list_changed");
    pass(step, `tagged ${JSON.stringify(note?.params?._meta?.["io.modelcontextprotocol/subscriptionId"])}`);

    step = STEPS[3];
    await within(client.callTool({ name: "test_close_subscriptions", arguments: {} }), "tools/call");
    const how = await within(sub.closed, "end of the listen stream");
    if (how !== "graceful") return fail(step, `the subscription ended "${how}", expected "graceful"`);
    pass(step);
  } finally {
    await client.close().catch(() => {});
  }
}

try {
  await run();
} catch (error) {
  const next = STEPS.find((s) => !reported.has(s));
  fail(next ?? "session", error?.message ?? String(error));
}
for (const step of STEPS) if (!reported.has(step)) fail(step, "not reached");
process.exit(failed ? 1 : 0);
