"""Drive one subscription with the official Python SDK client (mcp==2.3.0) and report each step.

Steps: connect (the SDK negotiates 2026-07-28 through server/discover), open a listen stream for
tool-list changes and get the acknowledgement, call test_trigger_tool_change and receive
notifications/tools/list_changed, call test_close_subscriptions and see the stream end with the
server's listen result (a graceful close), not a drop.

Prints `PASS python-sdk: <step>` or `FAIL python-sdk: <step>: <why>` per step; exit status 1 on any
failure. Every wait has a timeout, so a silent server fails a step instead of hanging.

Usage: python py_client.py URL [--timeout SECONDS]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp.client import Client
from mcp.client.subscriptions import SubscriptionLost, ToolsListChanged

PEER = "python-sdk"
STEPS = [
    "connect",
    "listen for tools: acknowledgement",
    "test_trigger_tool_change -> notifications/tools/list_changed",
    "test_close_subscriptions -> graceful close (listen result)",
]


class Steps:
    def __init__(self) -> None:
        self.failed = 0
        self.reported: set[str] = set()

    def ok(self, step: str, detail: str = "") -> None:
        self.reported.add(step)
        print(f"PASS {PEER}: {step}" + (f" ({detail})" if detail else ""), flush=True)

    def fail(self, step: str, why: str) -> None:
        self.reported.add(step)
        self.failed += 1
        print(f"FAIL {PEER}: {step}: {why}", flush=True)

    def next_unreported(self) -> str:
        return next((s for s in STEPS if s not in self.reported), "session")


async def within(seconds: float, what: Callable[[], Awaitable[Any]]) -> Any:
    with anyio.fail_after(seconds):
        return await what()


async def run(url: str, timeout: float, steps: Steps) -> None:
    # The whole session gets a deadline too: entering the client probes server/discover first.
    with anyio.fail_after(timeout * 5):
        async with Client(url, read_timeout_seconds=timeout) as client:
            await subscribe(client, timeout, steps)


async def subscribe(client: Client, timeout: float, steps: Steps) -> None:
    step = STEPS[0]
    version = client.session.protocol_version
    if version != "2026-07-28":
        steps.fail(step, f"negotiated protocol version {version!r}, expected '2026-07-28'")
        return
    steps.ok(step, "negotiated 2026-07-28 via server/discover")

    step = STEPS[1]
    # Entering `listen` returns only once the acknowledgement has arrived (or raises).
    async with client.listen(tools_list_changed=True) as sub:
        if not sub.honored.tools_list_changed:
            steps.fail(step, f"acknowledgement did not honour toolsListChanged: {sub.honored!r}")
            return
        honoured = sub.honored.model_dump(by_alias=True, exclude_none=True)
        steps.ok(step, f"subscription id {sub.subscription_id!r}, honoured {honoured}")

        step = STEPS[2]
        await within(timeout, lambda: client.call_tool("test_trigger_tool_change", {}))
        try:
            event = await within(timeout, sub.__anext__)
        except TimeoutError:
            steps.fail(step, f"no notification within {timeout}s")
            return
        except StopAsyncIteration:
            steps.fail(step, "the stream ended before the notification")
            return
        if not isinstance(event, ToolsListChanged):
            steps.fail(step, f"got {event!r} instead")
            return
        steps.ok(step)

        step = STEPS[3]
        await within(timeout, lambda: client.call_tool("test_close_subscriptions", {}))
        try:
            extra = await within(timeout, sub.__anext__)
            steps.fail(step, f"got another event {extra!r} instead of the end of the stream")
        except StopAsyncIteration:
            # The SDK ends iteration only when the listen request got its result: the graceful close.
            steps.ok(step)
        except SubscriptionLost as lost:
            steps.fail(step, f"the stream dropped without the listen result: {lost}")
        except TimeoutError:
            steps.fail(step, f"the stream did not end within {timeout}s")


def describe(error: BaseException) -> str:
    """The innermost causes, since anyio wraps task failures in exception groups."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(describe(e) for e in error.exceptions)
    return f"{type(error).__name__}: {error}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url")
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args()
    steps = Steps()
    try:
        anyio.run(run, args.url, args.timeout, steps)
    except Exception as error:  # report any SDK or connection error as a failed step, not a traceback
        steps.fail(steps.next_unreported(), describe(error))
    for step in STEPS:
        if step not in steps.reported:
            steps.fail(step, "not reached")
    return 1 if steps.failed else 0


if __name__ == "__main__":
    sys.exit(main())
