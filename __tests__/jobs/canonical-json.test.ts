/**
 * canonicalJson (jobs/spec-key.ts): the one canonical JSON of the program, for the spec keys (jobs/maxtext.ts,
 * jobs/pipeline.ts) and the review's comparisons of plan values (review/values.ts `canonical` is this function).
 */
import { canonicalJson } from '../../jobs/spec-key';
import { canonical } from '../../review/values';

test('keys sorted at every level, so equal values give equal text whatever their key order', () => {
  expect(canonicalJson({ b: 1, a: { d: [1, { z: 0, y: 'x' }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":"x","z":0}]},"b":1}');
  expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }));
  expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
});

test('undefined: an object member is left out (as JSON.stringify does), an array element and the value itself read as null', () => {
  expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  expect(canonicalJson([undefined, 1])).toBe('[null,1]');
  expect(canonicalJson(undefined)).toBe('null');
  expect(canonicalJson(undefined)).toBe(canonicalJson(null));
});

test("the review's canonical is the same function (one copy)", () => {
  expect(canonical).toBe(canonicalJson);
});
