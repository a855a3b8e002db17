/**
 * The offer's shipping text as it is until the merchant writes their own (shipping.display). The
 * widget gives way to its delivery line ("Ships by 15 Jan 2027") where the offer has a date or days
 * and the text is still this one, which would contradict it (decision 0248).
 */
export const DEFAULT_SHIPPING_TEXT = "Ships as soon as it is available.";
