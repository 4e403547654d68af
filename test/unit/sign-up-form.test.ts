import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateSignUp } from '../../src/web/sign-up-form.ts';

const valid = { name: ' Grace Saver ', email: ' grace@example.test ', password: 'eight ch', confirm: 'eight ch' };

describe('sign-up form', () => {
  it('accepts a name, an email and a password typed twice, trimming name and email only', () => {
    assert.deepEqual(validateSignUp(valid), { ok: true, account: { name: 'Grace Saver', email: 'grace@example.test', password: 'eight ch' } });
  });

  it('counts password length in characters, not bytes', () => {
    assert.equal(validateSignUp({ ...valid, password: '🔑🔑🔑🔑🔑🔑🔑', confirm: '🔑🔑🔑🔑🔑🔑🔑' }).ok, false);
    assert.equal(validateSignUp({ ...valid, password: '🔑🔑🔑🔑🔑🔑🔑🔑', confirm: '🔑🔑🔑🔑🔑🔑🔑🔑' }).ok, true);
  });

  it('refuses a password longer than the hasher accepts', () => {
    const long = 'x'.repeat(1025);
    const result = validateSignUp({ ...valid, password: long, confirm: long });
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.errors.password! : '', /at most 1024 bytes/);
  });

  it('reports each problem under its field and keeps name and email, never the password', () => {
    const result = validateSignUp({ name: '', email: 'no-at-sign', password: 'short', confirm: 'other' });
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.deepEqual(Object.keys(result.errors), ['name', 'email', 'password']);
    assert.deepEqual(result.values, { name: '', email: 'no-at-sign' });
  });

  it('refuses a name with control characters and missing fields', () => {
    assert.equal(validateSignUp({ ...valid, name: 'Grace\nSaver' }).ok, false);
    const result = validateSignUp({});
    assert.equal(result.ok, false);
    assert.deepEqual(Object.keys(!result.ok ? result.errors : {}), ['name', 'email', 'password']);
  });

  it('refuses a name with bidirectional overrides, isolates or marks, which would reorder it on a consent page', () => {
    for (const sneaky of ['Ada \u202Eevil', 'Ada \u2066x\u2069', 'Ada\u200F', 'Ada\u061C']) {
      const result = validateSignUp({ ...valid, name: sneaky });
      assert.equal(result.ok, false, JSON.stringify(sneaky));
      assert.deepEqual(Object.keys(!result.ok ? result.errors : {}), ['name']);
    }
    assert.equal(validateSignUp({ ...valid, name: 'Zoë Ångström-Nuñez' }).ok, true);
  });

  it('asks for the confirmation to match only once the password itself is acceptable', () => {
    const result = validateSignUp({ ...valid, confirm: 'different' });
    assert.deepEqual(!result.ok && result.errors, { confirm: 'The two passwords do not match.' });
  });
});
