// The error a tRPC procedure called through createCaller failed with; a call
// that succeeds fails the test.
import { TRPCError } from "@trpc/server";
import { expect } from "vitest";

export async function trpcError(p: Promise<unknown>): Promise<TRPCError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TRPCError);
    return err as TRPCError;
  }
  throw new Error("expected the call to fail");
}
