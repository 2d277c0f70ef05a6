"use client";
// Why Costs shows $0 (a new installation runs only the free scripted demos, or
// no model has a price yet), with the two places that change it.
import Link from "next/link";
import { roleAtLeast, useMe } from "@/lib/access";
import { trpc } from "@/lib/trpc";

export function ZeroCostNote({ hasCalls }: { hasCalls: boolean }) {
  const { me } = useMe();
  const prices = trpc.prices.list.useQuery(undefined, { staleTime: 60_000 });
  const priced = prices.data?.prices.length ?? 0;
  const admin = roleAtLeast(me?.role, "admin");
  return (
    <div className="stack" style={{ gap: 6 }} data-testid="costs-free">
      <strong>{hasCalls ? "Every model call in this range cost $0." : "No model call in this range, so nothing cost anything yet."}</strong>
      <span>
        Scripted models (the demo agents) are free, so their runs never cost anything.{" "}
        {prices.isSuccess &&
          (priced === 0
            ? "No model has a price yet, so calls to real models would count as $0 too."
            : `${priced === 1 ? "One model has a price" : `${priced} models have prices`}, but no run in this range called ${priced === 1 ? "it" : "them"}.`)}
      </span>
      <span>
        {admin ? (
          <>
            Set what a model costs in{" "}
            <Link href="/settings/prices" data-testid="costs-free-prices">
              Settings › Prices
            </Link>
            , or add a real model in{" "}
            <Link href="/settings/models" data-testid="costs-free-models">
              Settings › Models
            </Link>
            .
          </>
        ) : (
          <>
            An admin sets prices in{" "}
            <Link href="/settings/prices" data-testid="costs-free-prices">
              Settings › Prices
            </Link>{" "}
            and adds real models in{" "}
            <Link href="/settings/models" data-testid="costs-free-models">
              Settings › Models
            </Link>
            .
          </>
        )}
      </span>
    </div>
  );
}
