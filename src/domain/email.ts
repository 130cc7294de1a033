import { AppError } from './errors.js';

/** What an email address of an account must look like (docs/auth.md#user-records): something@something, at most 254 characters. */
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The address trimmed, or BAD_REQUEST naming `email`. */
export function validateEmail(email: string): string {
  const e = email.trim();
  if (e.length > 254 || !EMAIL.test(e)) throw new AppError('BAD_REQUEST', `invalid email address: "${email}"`, 'email');
  return e;
}
