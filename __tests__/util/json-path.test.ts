/** util/json-path.ts, the one JSON path printer, case by case. */
import { jsonPath, jsonPathStep } from '../../util/json-path';

describe('jsonPath', () => {
  test.each<[Array<string | number>, string]>([
    [[], ''],
    [['a'], 'a'],
    [['a', 'b', 'c'], 'a.b.c'],
    [[0], '[0]'],
    [['a', 0], 'a[0]'],
    [['resource_changes', 3, 'change', 'actions', 0], 'resource_changes[3].change.actions[0]'],
    [[1, 'b'], '[1].b'],
    [['a', 0, 1, 'b'], 'a[0][1].b'],
    [['a.b', 'c[0]'], 'a.b.c[0]'], // keys are printed as they are, unquoted
  ])('%j -> %s', (parts, text) => {
    expect(jsonPath(parts)).toBe(text);
  });
});

describe('jsonPathStep', () => {
  test.each<[string, string | number, string]>([
    ['', 'a', 'a'],
    ['', 0, '[0]'],
    ['a', 'b', 'a.b'],
    ['a', 2, 'a[2]'],
    ['a[2]', 'b', 'a[2].b'],
  ])('%j + %j -> %s', (prefix, part, text) => {
    expect(jsonPathStep(prefix, part)).toBe(text);
  });
});
