import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type GraphQLInputType,
  type GraphQLSchema,
  Kind,
  NoDeprecatedCustomRule,
  buildSchema,
  isInputObjectType,
  isListType,
  isNonNullType,
  parse,
  specifiedRules,
  typeFromAST,
  validate,
} from "graphql";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));
/** The emulator's own documents (none today) are not the client's: it serves, it does not send. */
const EMULATOR = join(SRC, "platform", "emulator");

/** A document the service sends to the platform, found in the sources. */
export interface PlatformDocument {
  /** The operation's name (`query GetOrder(...)` → GetOrder). */
  operation: string;
  /** The module exporting it, relative to src/, and the export's name. */
  module: string;
  exportName: string;
  text: string;
}

/** `query X(` / `mutation X {` opening a template literal: how every document of the client starts. */
const LITERAL = /`\s*(query|mutation)\s+([A-Za-z_]\w*)\s*[({]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === EMULATOR ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Operation names written as literals in each source file outside the emulator. */
export function documentLiterals(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const names = [...readFileSync(file, "utf8").matchAll(LITERAL)].map((match) => match[2] as string);
    if (names.length > 0) found.set(relative(SRC, file), names);
  }
  return found;
}

/** The documents the modules holding literals export (a module's exported strings that are operations). */
export async function exportedDocuments(modules: Iterable<string>): Promise<PlatformDocument[]> {
  const documents: PlatformDocument[] = [];
  for (const module of modules) {
    const exports = (await import(join(SRC, module))) as Record<string, unknown>;
    for (const [exportName, value] of Object.entries(exports)) {
      if (typeof value !== "string") continue;
      const definition = /^\s*(query|mutation)\s+([A-Za-z_]\w*)/.exec(value);
      if (definition) documents.push({ operation: definition[2] as string, module, exportName, text: value });
    }
  }
  return documents;
}

/** Every document the client sends, each found both as a literal and as an export. */
export async function platformDocuments(): Promise<PlatformDocument[]> {
  return exportedDocuments(documentLiterals().keys());
}

let adminSchema: GraphQLSchema | undefined;

/** Shopify's Admin schema as vendored (decision 0216), built once per test file. */
export function realAdminSchema(): GraphQLSchema {
  adminSchema ??= buildSchema(readFileSync(join(SRC, "platform", "admin-2026-07.graphql"), "utf8"));
  return adminSchema;
}

/** What the platform's schema says of a document: its validation errors, deprecated fields and arguments included. */
export function documentErrors(text: string): string[] {
  return validate(realAdminSchema(), parse(text), [...specifiedRules, NoDeprecatedCustomRule]).map((error) => error.message);
}

/**
 * The deprecated input fields the variables of one request set (`DraftOrderInput.customerId`):
 * what the document validation cannot see, since the document only names the variable's type.
 */
export function deprecatedInputs(text: string, variables: Record<string, unknown>): string[] {
  const found: string[] = [];
  const walk = (type: GraphQLInputType, value: unknown): void => {
    if (value === null || value === undefined) return;
    if (isNonNullType(type)) return walk(type.ofType, value);
    if (isListType(type)) {
      for (const item of Array.isArray(value) ? value : [value]) walk(type.ofType, item);
      return;
    }
    if (!isInputObjectType(type) || typeof value !== "object") return;
    const fields = type.getFields();
    for (const [key, inner] of Object.entries(value)) {
      const field = fields[key];
      if (!field) continue;
      if (field.deprecationReason !== undefined && field.deprecationReason !== null) found.push(`${type.name}.${key}`);
      walk(field.type, inner);
    }
  };
  for (const definition of parse(text).definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const variable of definition.variableDefinitions ?? []) {
      const type = typeFromAST(realAdminSchema(), variable.type);
      if (type) walk(type as GraphQLInputType, variables[variable.variable.name.value]);
    }
  }
  return found;
}

/** The operation's name (`query GetOrder(...)` → GetOrder). */
export function operationName(text: string): string {
  return /^\s*(?:query|mutation)\s+([A-Za-z_]\w*)/.exec(text)?.[1] ?? "(anonymous)";
}
