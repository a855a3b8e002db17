import { z } from "zod";
import { PlatformError } from "../errors.ts";

/**
 * Validates an answer's `data` against what the operation selected. A mismatch means the
 * platform (or emulator) and this client disagree on the schema: report it as the platform's
 * fault, naming the operation, instead of failing later on an undefined field.
 */
export function parseAnswer<S extends z.ZodType>(schema: S, data: unknown, operation: string): z.infer<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  throw new PlatformError(`${operation}: unexpected answer shape: ${z.prettifyError(result.error)}`, {
    kind: "graphql",
    attempts: 0,
    cause: result.error,
  });
}

/** The Decimal scalar: the platform sends a string ("12.50"); accept a number too, keep a string. */
export const decimalSchema = z.union([z.string(), z.number()]).transform(String);

/** A MoneyBag read for its shop-currency amount (`… { shopMoney { amount } }`): the amount as a decimal string. */
export const shopMoneySchema = z.object({ shopMoney: z.object({ amount: decimalSchema }) }).transform((bag) => bag.shopMoney.amount);
