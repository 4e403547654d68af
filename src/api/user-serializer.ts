import type { User } from '../domain/records.ts';

export function serializeMyUser(user: User, baseUrl: string) {
  return {
    user: { id: user.id, name: user.name, email: user.email },
    links: { self: `${baseUrl}/api/v2/my_user` },
  };
}
