import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isEnvGrantedAdmin, roleAfterLogin } from '../../src/auth/grants.js';

describe('admin grants (docs/auth.md#roles-and-admin-grants)', () => {
  const config: Parameters<typeof isEnvGrantedAdmin>[0] = { adminEmail: 'boss@x.io', oidc: { adminGroups: ['joe-admins', 'ops'] } };

  test('JOE_ADMIN_EMAIL is an exact string match', () => {
    assert.equal(isEnvGrantedAdmin(config, { email: 'boss@x.io' }), true);
    assert.equal(isEnvGrantedAdmin(config, { email: 'Boss@x.io' }), false);
    assert.equal(isEnvGrantedAdmin(config, { email: ' boss@x.io' }), false);
    assert.equal(isEnvGrantedAdmin({ ...config, adminEmail: null }, { email: 'boss@x.io' }), false);
  });

  test('only an array groups claim holding an admin group grants', () => {
    assert.equal(isEnvGrantedAdmin(config, { email: 'a@x.io', groups: ['staff', 'ops'] }), true);
    assert.equal(isEnvGrantedAdmin(config, { email: 'a@x.io', groups: ['staff'] }), false);
    assert.equal(isEnvGrantedAdmin(config, { email: 'a@x.io', groups: 'joe-admins' }), false);
    assert.equal(isEnvGrantedAdmin(config, { email: 'a@x.io', groups: { 'joe-admins': true } }), false);
    assert.equal(isEnvGrantedAdmin(config, { email: 'a@x.io', groups: [['joe-admins'], 1, null] }), false);
    assert.equal(isEnvGrantedAdmin(config, { email: 'a@x.io' }), false);
    assert.equal(isEnvGrantedAdmin({ ...config, oidc: { adminGroups: [] } }, { email: 'a@x.io', groups: [''] }), false);
  });

  test('grants promote, config revokes only what config granted', () => {
    assert.deepEqual(roleAfterLogin({ role: 'user', roleSource: 'manual' }, true), { role: 'admin', roleSource: 'config' });
    assert.deepEqual(roleAfterLogin({ role: 'user', roleSource: 'config' }, true), { role: 'admin', roleSource: 'config' });
    assert.equal(roleAfterLogin({ role: 'admin', roleSource: 'manual' }, true), null);
    assert.equal(roleAfterLogin({ role: 'admin', roleSource: 'config' }, true), null);
    assert.deepEqual(roleAfterLogin({ role: 'admin', roleSource: 'config' }, false), { role: 'user', roleSource: 'config' });
    assert.equal(roleAfterLogin({ role: 'admin', roleSource: 'manual' }, false), null);
    assert.equal(roleAfterLogin({ role: 'user', roleSource: 'manual' }, false), null);
  });
});
