#!/usr/bin/env python3
"""rust-version check without a second toolchain (only the machine's one Rust can be installed).

The code's own needs are checked by clippy, which judges every std API against `rust-version`
(incompatible_msrv, denied with the other warnings). What clippy cannot see is the dependencies:
this fails when a package in Cargo.lock declares a rust-version newer than the workspace's, so
a `cargo update` cannot quietly raise the Rust a user needs.
"""
import json
import subprocess
import sys


def version(text):
    return tuple(int(part) for part in text.split("."))


meta = json.loads(
    subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
)
members = set(meta["workspace_members"])
ours = {p["rust_version"] for p in meta["packages"] if p["id"] in members}
if len(ours) != 1 or None in ours:
    sys.exit(f"every workspace member must inherit one rust-version; found {sorted(map(str, ours))}")
msrv = ours.pop()
used = {node["id"] for node in meta["resolve"]["nodes"]}
newer = sorted(
    f'{p["name"]} {p["version"]} needs Rust {p["rust_version"]}'
    for p in meta["packages"]
    if p["id"] in used and p.get("rust_version") and version(p["rust_version"]) > version(msrv)
)
if newer:
    print(f"rust-version is {msrv} (Cargo.toml), but:", *newer, sep="\n  ", file=sys.stderr)
    sys.exit("raise rust-version in Cargo.toml to the newest of these, or pin the crates back")
print(f"rust-version {msrv}: no locked dependency needs a newer Rust ({len(used)} packages)")
