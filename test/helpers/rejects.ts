// The error a call failed with, checked to be of the expected class; a call
// that succeeds fails the test.
import { expect } from "vitest";

export async function rejection<E extends Error>(p: Promise<unknown>, kind: abstract new (...args: never[]) => E): Promise<E> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(kind);
  return err as E;
}
