// Activity (DESIGN §1): what happened to my account lately, newest first. Only the
// application's name is taken from an event's detail; nothing secret is ever in it.
import type { AuditEvent, AuditEventType } from '../domain/records.ts';
import { timeElement } from './format.ts';
import { type SafeHtml, html } from './html.ts';
import { layout } from './layout.ts';
import type { PageUser } from './page-user.ts';

/** What the page lists; routine token issue and refresh would drown the rest. */
export const ACTIVITY_LABELS: Partial<Record<AuditEventType, string>> = {
  'user.created': 'Account created',
  'sign_in.success': 'Signed in',
  'sign_in.failure': 'Failed sign-in attempt',
  'sign_in.locked': 'Sign-in locked after failed attempts',
  'sign_out': 'Signed out',
  'consent.granted': 'Allowed an application access',
  'consent.denied': 'Denied an application access',
  'grant.revoked': 'Revoked an application’s access',
  'token.revoked': 'An application gave up a token',
  'code.replayed': 'Authorization code used twice: its tokens were revoked',
  'refresh_token.reused': 'Old refresh token used again: the access was revoked',
  'refresh_token.raced': 'Refresh token used again within seconds: refused, nothing revoked',
  'application.created': 'Registered an application',
  'application.updated': 'Changed an application',
  'application.secret_rotated': 'Made a new application secret',
  'application.deleted': 'Deleted an application',
};

export const ACTIVITY_TYPES = Object.keys(ACTIVITY_LABELS) as AuditEventType[];

export interface ActivityEntry {
  event: AuditEvent;
  /** The application's name, when the event concerns one that can still be named. */
  applicationName?: string;
}

export function renderActivityPage(model: { user: PageUser; entries: ActivityEntry[] }): string {
  return layout({ title: 'Activity', signedInAs: model.user }, html`
    <section class="card">
      <h1>Activity</h1>
      <p class="muted">Recent events on your account, newest first; times are UTC.
        If you do not recognise an application, revoke its access under Connected applications.</p>
      ${model.entries.length === 0 ? html`<p class="muted">Nothing yet.</p>` : html`
      <table>
        <thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Application</th><th scope="col" class="optional">From address</th></tr></thead>
        <tbody>${model.entries.map(({ event, applicationName }) => html`
          <tr>
            <td>${timeElement(event.createdAt)}</td>
            <td>${whatHappened(event)}</td>
            <td>${applicationName ?? (event.applicationId === null ? '' : html`<span class="muted">a deleted application</span>`)}</td>
            <td class="optional">${event.ip ?? html`<span class="muted">command line</span>`}</td>
          </tr>`)}
        </tbody>
      </table>`}
    </section>`);
}

/** A lock says until when, and that browsers which signed in before are not locked out by it (accounts/login-throttle.ts). */
function whatHappened(event: AuditEvent): SafeHtml | string {
  const label = ACTIVITY_LABELS[event.type] ?? event.type;
  const { until, trusted_device: trustedDevice } = event.detail;
  if (event.type !== 'sign_in.locked' || typeof until !== 'number') return label;
  return trustedDevice === true
    ? html`${label} on one of your own browsers, until ${timeElement(until)}`
    : html`${label}, until ${timeElement(until)}, for browsers that never signed in to your account`;
}
