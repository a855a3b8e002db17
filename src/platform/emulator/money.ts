/** Amounts are integer cents inside the emulator; the platform's Decimal is a string with two places. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(Math.round(cents));
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
