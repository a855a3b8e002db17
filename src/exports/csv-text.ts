/**
 * A text cell of a CSV export, safe to open in a spreadsheet: one that starts like a formula
 * (`=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`, so the spreadsheet shows
 * it as text instead of running it. Cells hold what shoppers and merchants typed (an order's
 * e-mail, a product title): `=HYPERLINK(...)` would otherwise be a live link in the merchant's
 * sheet. A plain number (`-2.50`, an amount the database hands over as text) is left as it is.
 */
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

export function csvText(value: string): string {
  const first = value.charCodeAt(0);
  // = + - @ \t \r
  if (first !== 61 && first !== 43 && first !== 45 && first !== 64 && first !== 9 && first !== 13) return value;
  return PLAIN_NUMBER.test(value) ? value : `'${value}`;
}
