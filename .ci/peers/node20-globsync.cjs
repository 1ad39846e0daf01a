// Preload for Node 20: provide `fs.globSync` (added in Node 22), which the official conformance suite
// imports by name (`import { globSync } from "fs"`). Load it with `node --require` (or
// NODE_OPTIONS="--require ..."). On Node 22+ it does nothing.
//
// Adding the function to the CommonJS `fs` object is not enough for ES modules: Node fixes the named
// exports of a built-in's ESM facade the first time the built-in is loaded publicly, which is before
// any preload can touch it. So for ES modules a resolve hook (node20-fs-hooks.mjs) points `fs` and
// `node:fs` at a shim (node20-fs-shim.mjs) that re-exports all of `fs` plus `globSync`.
//
// Supports what Node's own globSync accepts for the usual cases: `*`, `?`, `**`, `[...]`, `{a,b}`,
// a pattern or an array of patterns, options `cwd`, `exclude` (function or array of patterns) and
// `withFileTypes`. Results are relative to `cwd` (absolute when the pattern is absolute).
"use strict";
const fs = require("fs");
const path = require("path");

if (typeof fs.globSync !== "function") {
  const expandBraces = (pattern) => {
    const open = pattern.indexOf("{");
    if (open < 0) return [pattern];
    let depth = 0;
    for (let i = open; i < pattern.length; i++) {
      if (pattern[i] === "{") depth++;
      else if (pattern[i] === "}" && --depth === 0) {
        const parts = [];
        let d = 0, start = open + 1;
        for (let j = open + 1; j < i; j++) {
          if (pattern[j] === "{") d++;
          else if (pattern[j] === "}") d--;
          else if (pattern[j] === "," && d === 0) { parts.push(pattern.slice(start, j)); start = j + 1; }
        }
        parts.push(pattern.slice(start, i));
        const head = pattern.slice(0, open), tail = pattern.slice(i + 1);
        return parts.flatMap((p) => expandBraces(head + p + tail));
      }
    }
    return [pattern];
  };

  const segmentRegex = (seg) => {
    let re = "^";
    for (let i = 0; i < seg.length; i++) {
      const c = seg[i];
      if (c === "*") re += "[^/]*";
      else if (c === "?") re += "[^/]";
      else if (c === "[") {
        const close = seg.indexOf("]", i + 2);
        if (close < 0) { re += "\\["; continue; }
        let body = seg.slice(i + 1, close);
        if (body[0] === "!") body = "^" + body.slice(1);
        re += "[" + body.replace(/\\/g, "\\\\") + "]";
        i = close;
      } else re += c.replace(/[.+^${}()|\\]/g, "\\$&");
    }
    return new RegExp(re + "$");
  };

  // Match path segments against pattern segments; "**" matches zero or more whole segments.
  const matchSegments = (pats, parts) => {
    if (pats.length === 0) return parts.length === 0;
    if (pats[0] === "**") {
      for (let k = 0; k <= parts.length; k++) {
        if (matchSegments(pats.slice(1), parts.slice(k))) return true;
      }
      return false;
    }
    if (parts.length === 0) return false;
    if (!segmentRegex(pats[0]).test(parts[0])) return false;
    // Like Node's glob, a wildcard does not match dotfiles unless the pattern segment starts with a dot.
    if (parts[0].startsWith(".") && !pats[0].startsWith(".")) return false;
    return matchSegments(pats.slice(1), parts.slice(1));
  };

  const walk = (root, rel, out) => {
    let entries;
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? rel + "/" + e.name : e.name;
      out.push([r, e]);
      if (e.isDirectory()) walk(root, r, out);
    }
  };

  fs.globSync = function globSync(pattern, options = {}) {
    const cwd = options.cwd ? String(options.cwd instanceof URL ? options.cwd.pathname : options.cwd) : process.cwd();
    const patterns = (Array.isArray(pattern) ? pattern : [pattern]).flatMap(expandBraces);
    const excludes = Array.isArray(options.exclude) ? options.exclude.flatMap(expandBraces) : [];
    const excludeFn = typeof options.exclude === "function" ? options.exclude : null;
    const results = new Map();
    for (const pat of patterns) {
      const absolute = path.isAbsolute(pat);
      const root = absolute ? path.parse(pat).root : cwd;
      const pats = pat.replace(/\\/g, "/").split("/").filter((s, i) => s !== "" && !(i === 0 && s === "."));
      const entries = [];
      walk(root, "", entries);
      for (const [rel, dirent] of entries) {
        const parts = rel.split("/");
        if (!matchSegments(pats, parts)) continue;
        if (excludes.some((x) => matchSegments(x.split("/").filter(Boolean), parts))) continue;
        const shown = absolute ? path.join(root, rel) : rel.split("/").join(path.sep);
        if (excludeFn && excludeFn(options.withFileTypes ? dirent : shown)) continue;
        if (!results.has(shown)) results.set(shown, dirent);
      }
    }
    return options.withFileTypes ? [...results.values()] : [...results.keys()];
  };

  const { register } = require("module");
  const { pathToFileURL } = require("url");
  register(pathToFileURL(path.join(__dirname, "node20-fs-hooks.mjs")));
}
