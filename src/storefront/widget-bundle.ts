import { createHash } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/**
 * The storefront widget (src/storefront/widget/, browser TypeScript) as one script: bundled by
 * esbuild in this process, minified, an IIFE for browsers of the last years. There is no build
 * step in this repository (Node runs the TypeScript sources), so the bundle is made on the first
 * request for it and kept for the life of the process; a fresh clone serves it after `npm ci`.
 */
const ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), "widget", "main.ts");

export interface WidgetBundle {
  code: string;
  /** A strong ETag: the bundle's sha256. */
  etag: string;
}

let pending: Promise<WidgetBundle> | undefined;

export async function bundleWidget(): Promise<WidgetBundle> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: "iife",
    target: ["es2020"],
    platform: "browser",
    write: false,
    legalComments: "none",
    logLevel: "silent",
  });
  const code = result.outputFiles[0]?.text ?? "";
  return { code, etag: `"${createHash("sha256").update(code).digest("base64url")}"` };
}

/** The process's bundle, built once (a failed build is tried again on the next request). */
export function widgetBundle(): Promise<WidgetBundle> {
  pending ??= bundleWidget().catch((error: unknown) => {
    pending = undefined;
    throw error;
  });
  return pending;
}
