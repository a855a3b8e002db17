import { z } from "zod";

/** `userErrors` as mutations answer them; `field` and `code` may be null. */
export const userErrorsSchema = z.array(
  z.object({ field: z.array(z.string()).nullish(), message: z.string(), code: z.string().nullish() }),
);
