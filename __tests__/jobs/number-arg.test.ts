/** numberArg (jobs/recipes/types.ts): the one reader of a numeric MaxText key that jobs/maxtext.ts, hbm.ts and validate.ts share. */
import { numberArg } from '../../jobs/recipes/types';

test('a number is read as is (0 included); absent, a string or a boolean gives the fallback', () => {
  const args = { steps: 1000, zero: 0, text: '12', flag: true };
  expect(numberArg(args, 'steps', 5)).toBe(1000);
  expect(numberArg(args, 'zero', 5)).toBe(0);
  expect(numberArg(args, 'missing', 5)).toBe(5);
  expect(numberArg(args, 'text', 5)).toBe(5);
  expect(numberArg(args, 'flag', 5)).toBe(5);
});
