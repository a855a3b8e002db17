/** Columns padded to their widest cell, two spaces apart; the last column is not padded. */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n") + "\n";
}

/** `key: value` lines with the values aligned. */
export function formatFields(fields: [string, string][]): string {
  const width = Math.max(...fields.map(([key]) => key.length)) + 1;
  return fields.map(([key, value]) => `${`${key}:`.padEnd(width)} ${value}`.trimEnd()).join("\n") + "\n";
}

/** A timestamp for tables: ISO 8601 in UTC, to the second. */
export function formatTime(value: Date | null): string {
  if (!value) return "-";
  return value.toISOString().replace("T", " ").replace(/\.\d{3}Z$/, "Z");
}
