import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  asVisibility,
  CAPABILITIES,
  linkCaps,
  NO_CAPS,
  resolveAccess,
  type LinkCaps,
  type LinkFacts,
  type ResolveAccess,
  type Visibility,
} from '../../src/domain/caps.js';

/**
 * LinkCaps (docs/links.md#capabilities) and who may follow a link (docs/links.md#visibility). The expected values are
 * copied cell by cell from the two tables in the spec, never derived from the code under test.
 */

type Viewer = 'owner' | 'co-owner' | 'admin' | 'share recipient' | 'other signed-in user' | 'anonymous';

/** The facts the store loads for each kind of viewer; anonymous viewers have none. */
const FACTS: Record<Viewer, LinkFacts | null> = {
  owner: { isOwner: true, hasShare: false, isAdmin: false },
  // A co-owner is any non-primary link_owners row: the same "is owner" fact.
  'co-owner': { isOwner: true, hasShare: false, isAdmin: false },
  admin: { isOwner: false, hasShare: false, isAdmin: true },
  'share recipient': { isOwner: false, hasShare: true, isAdmin: false },
  'other signed-in user': { isOwner: false, hasShare: false, isAdmin: false },
  anonymous: null,
};

const y = true;
const n = false;

/** docs/links.md#capabilities table: rows are capabilities, columns viewers. Visibility does not change any cell. */
const CAPS_TABLE: Record<(typeof CAPABILITIES)[number], Record<Viewer, boolean>> = {
  canView: { owner: y, 'co-owner': y, admin: y, 'share recipient': y, 'other signed-in user': n, anonymous: n },
  canStats: { owner: y, 'co-owner': y, admin: y, 'share recipient': y, 'other signed-in user': n, anonymous: n },
  canEdit: { owner: y, 'co-owner': y, admin: y, 'share recipient': n, 'other signed-in user': n, anonymous: n },
  canDelete: { owner: y, 'co-owner': y, admin: y, 'share recipient': n, 'other signed-in user': n, anonymous: n },
  canManageShares: { owner: y, 'co-owner': y, admin: y, 'share recipient': n, 'other signed-in user': n, anonymous: n },
};

/** docs/links.md#visibility table, `GET /{slug}` column. */
const RESOLVE_TABLE: Record<Visibility, Record<Viewer, ResolveAccess>> = {
  public: {
    owner: 'allow',
    'co-owner': 'allow',
    admin: 'allow',
    'share recipient': 'allow',
    'other signed-in user': 'allow',
    anonymous: 'allow',
  },
  private: {
    owner: 'allow',
    'co-owner': 'allow',
    admin: 'allow',
    'share recipient': 'allow',
    'other signed-in user': 'allow',
    anonymous: 'allow',
  },
  secure: {
    owner: 'allow',
    'co-owner': 'allow',
    admin: 'allow',
    'share recipient': 'allow',
    'other signed-in user': 'forbidden',
    anonymous: 'login',
  },
  internal: {
    owner: 'allow',
    'co-owner': 'allow',
    admin: 'allow',
    'share recipient': 'allow',
    'other signed-in user': 'allow',
    anonymous: 'login',
  },
};

const VIEWERS = Object.keys(FACTS) as Viewer[];
const VISIBILITY_MODES: Visibility[] = ['public', 'private', 'secure', 'internal'];

const capsOf = (viewer: Viewer): LinkCaps => {
  const facts = FACTS[viewer];
  return facts === null ? NO_CAPS : linkCaps(facts);
};

describe('capability matrix: every role × visibility × capability', () => {
  for (const visibility of VISIBILITY_MODES) {
    for (const viewer of VIEWERS) {
      for (const cap of CAPABILITIES) {
        const expected = CAPS_TABLE[cap][viewer];
        test(`${visibility} link, ${viewer}: ${cap} is ${expected ? 'granted' : 'denied'}`, () => {
          assert.equal(capsOf(viewer)[cap], expected);
        });
      }
      const outcome = RESOLVE_TABLE[visibility][viewer];
      test(`${visibility} link, ${viewer}: following it gives ${outcome}`, () => {
        assert.equal(resolveAccess(visibility, FACTS[viewer]), outcome);
      });
    }
  }
});

describe('linkCaps formula over every combination of facts', () => {
  // manage = isOwner || isAdmin; view = stats = manage || hasShare; edit = delete = manageShares = manage.
  const rows: Array<[isOwner: boolean, hasShare: boolean, isAdmin: boolean, view: boolean, manage: boolean]> = [
    [n, n, n, n, n],
    [n, y, n, y, n],
    [n, n, y, y, y],
    [n, y, y, y, y],
    [y, n, n, y, y],
    [y, y, n, y, y],
    [y, n, y, y, y],
    [y, y, y, y, y],
  ];
  for (const [isOwner, hasShare, isAdmin, view, manage] of rows) {
    test(`owner=${isOwner} share=${hasShare} admin=${isAdmin}`, () => {
      assert.deepEqual(linkCaps({ isOwner, hasShare, isAdmin }), {
        canView: view,
        canStats: view,
        canEdit: manage,
        canDelete: manage,
        canManageShares: manage,
      });
    });
  }

  test('a signed-in viewer with no relation gets exactly the anonymous capabilities', () => {
    assert.deepEqual(linkCaps({ isOwner: false, hasShare: false, isAdmin: false }), { ...NO_CAPS });
  });

  test('NO_CAPS cannot be widened by a careless caller', () => {
    assert.throws(() => {
      (NO_CAPS as { canEdit: boolean }).canEdit = true;
    });
    assert.equal(NO_CAPS.canEdit, false);
  });

  test('the capability list is the five of docs/links.md#capabilities', () => {
    assert.deepEqual([...CAPABILITIES], ['canView', 'canStats', 'canEdit', 'canDelete', 'canManageShares']);
  });
});

describe('secure links: a share is enough, admins always pass', () => {
  test('an admin who is also a share recipient is allowed', () => {
    assert.equal(resolveAccess('secure', { isOwner: false, hasShare: true, isAdmin: true }), 'allow');
  });
});

describe('internal: anyone signed in', () => {
  test('anonymous visitors sign in first; every signed-in visitor may follow it, holding it or not', () => {
    assert.equal(resolveAccess('internal', null), 'login');
    assert.equal(resolveAccess('internal', { isOwner: false, hasShare: false, isAdmin: false }), 'allow');
    assert.equal(resolveAccess('internal', { isOwner: true, hasShare: false, isAdmin: false }), 'allow');
  });
});

describe('asVisibility', () => {
  for (const v of ['public', 'private', 'secure', 'internal'] as const) {
    test(`"${v}" is kept`, () => assert.equal(asVisibility(v), v));
  }
  for (const v of ['PRIVATE', 'Secure', ' private', 'hidden', 'Internal', '', null, undefined]) {
    test(`unknown stored value ${JSON.stringify(v)} is treated as public`, () => {
      assert.equal(asVisibility(v), 'public');
      // …and so resolves for anyone, like a public link.
      assert.equal(resolveAccess(asVisibility(v), null), 'allow');
    });
  }
});
