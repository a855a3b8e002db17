/**
 * A text cell of a CSV export, safe to open in a spreadsheet: one that starts like a formula
 * (`=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`, so the spreadsheet shows
 * it as text instead of running it. Cells hold what shoppers and merchants typed (an order's
 * e-mail, a product title): `=HYPERLINK(...)` would otherwise be a live link in the merchant's
 * sheet. A plain number (`-2.50`, an amount the database hands over as text) is left as it is.
 *
 * The rule is written twice, once per place a CSV is produced: `csvText` for the exports whose
 * rows are built in JavaScript (csv-stringify, store.ts), `csvTextSql` for the exports PostgreSQL
 * writes itself (`COPY ... TO STDOUT (FORMAT csv)`, copy.ts). test/csv-text-sql.test.ts holds them
 * to the same bytes.
 */
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

export function csvText(value: string): string {
  const first = value.charCodeAt(0);
  // = + - @ \t \r
  if (first !== 61 && first !== 43 && first !== 45 && first !== 64 && first !== 9 && first !== 13) return value;
  return PLAIN_NUMBER.test(value) ? value : `'${value}`;
}

/**
 * PLAIN_NUMBER as a PostgreSQL regular expression: `[0-9]` (JavaScript's `\d` is ASCII digits only,
 * PostgreSQL's may take other scripts' digits), `[eE]` for the `i` flag, `[.]` for a dot. `$` ends
 * the string in both (no newline-sensitive matching).
 */
const PLAIN_NUMBER_SQL = "'^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$'";

/**
 * `csvText` as an SQL expression over a text expression `expr` (evaluated several times: pass a
 * column reference), for a cell that PostgreSQL's COPY writes as CSV. Besides the formula rule it
 * turns an empty string into NULL: COPY writes '' as `""` (to tell it from NULL) while
 * csv-stringify writes both as nothing, and the files must not change with the writer.
 * `ascii()` is the first character's code (0 for '', NULL for NULL), the same test as
 * `charCodeAt(0)` for these six ASCII characters. Most cells start above `@` (letters, anything
 * not ASCII): the first branch passes them on after one comparison, which keeps the rule to a few
 * percent of the report's COPY (about 10% when every cell took the full test).
 */
export function csvTextSql(expr: string): string {
  return (
    `case when ascii(${expr}) > 64 then ${expr}` +
    ` when ascii(${expr}) in (61, 43, 45, 64, 9, 13) and ${expr} !~ ${PLAIN_NUMBER_SQL} then '''' || ${expr}` +
    ` else nullif(${expr}, '') end`
  );
}
