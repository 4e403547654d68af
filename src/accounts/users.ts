// Creating people, shared by the CLI, the demo seed and (later) sign-up.
import type { Clock } from '../platform/clock.ts';
import { type PasswordCost, hashPassword } from '../platform/password.ts';
import type { User } from '../domain/records.ts';
import { type Storage } from '../storage/stores.ts';
import { StorageConflictError } from '../storage/errors.ts';
import { AccountError } from './errors.ts';

export interface UserDeps {
  storage: Pick<Storage, 'users'>;
  clock: Clock;
  /** PASSWORD_COST unless given. */
  passwordCost?: PasswordCost;
}

export async function createUser(
  deps: UserDeps,
  input: { email: string; password: string; name: string; ip?: string | null },
): Promise<User> {
  const now = deps.clock.now();
  const passwordHash = await hashPassword(input.password, deps.passwordCost);
  let user: User;
  try {
    user = await deps.storage.users.createUser({ email: input.email, name: input.name, passwordHash, now }, (created) => ({
      type: 'user.created', userId: created.id, applicationId: null, ip: input.ip ?? null, detail: {}, createdAt: now,
    }));
  } catch (error) {
    if (error instanceof StorageConflictError) throw new AccountError(`a user with email ${input.email} already exists`, 'conflict', 'email');
    throw error;
  }
  return user;
}
