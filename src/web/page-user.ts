import type { Session, User } from '../domain/records.ts';
import type { LayoutOptions } from './layout.ts';

/** The signed-in person a page is for, with the CSRF token its forms carry. */
export type PageUser = NonNullable<LayoutOptions['signedInAs']>;

export function pageUser(signedIn: { user: User; session: Session }): PageUser {
  return { name: signedIn.user.name, email: signedIn.user.email, csrfToken: signedIn.session.csrfToken };
}
