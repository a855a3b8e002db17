/** `UserError` as mutations answer it: the input path as strings, a sentence, and a code. */
interface UserError {
  field: string[] | null;
  message: string;
  code: string | null;
}

/** Collects a mutation's user errors; the mutation applies nothing when there are any. */
export class UserErrors {
  readonly list: UserError[] = [];

  add(field: readonly (string | number)[] | null, message: string, code: string): void {
    this.list.push({ field: field ? field.map(String) : null, message, code });
  }

  get any(): boolean {
    return this.list.length > 0;
  }
}
