/** Amounts are integer cents inside the emulator; the platform's Decimal is a string with two places. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(Math.round(cents));
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The platform's MoneyV2: a Decimal amount and its currency. */
export function moneyV2(cents: number, currencyCode: string): { amount: string; currencyCode: string } {
  return { amount: formatCents(cents), currencyCode };
}

/** The platform's MoneyBag. The emulator sells in the shop's currency only: presentment and shop money agree. */
export function moneyBag(cents: number, currencyCode: string): { shopMoney: { amount: string; currencyCode: string }; presentmentMoney: { amount: string; currencyCode: string } } {
  const money = moneyV2(cents, currencyCode);
  return { shopMoney: money, presentmentMoney: money };
}
