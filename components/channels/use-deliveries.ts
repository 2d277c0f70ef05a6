"use client";
// A webhook's delivery log, newest first, a page at a time. A refetch walks
// the pages again from the newest, so new deliveries never leave a gap; it
// refreshes every 2 s while a delivery is pending.
import { useInfiniteQuery } from "@tanstack/react-query";
import { trpc } from "@/lib/trpc";
import { stillMoving, type DeliveryState } from "./format";

export const PAGE_SIZE = 25;
export const deliveriesKey = (endpointId: string, state?: DeliveryState | null) =>
  state === undefined ? ["webhook-deliveries", endpointId] : ["webhook-deliveries", endpointId, state ?? "all"];

export function useDeliveries(endpointId: string, state: DeliveryState | null) {
  const utils = trpc.useUtils();
  return useInfiniteQuery({
    queryKey: deliveriesKey(endpointId, state),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      utils.client.webhooks.deliveries.query({ id: endpointId, state: state ?? undefined, limit: PAGE_SIZE, before: pageParam }),
    getNextPageParam: (last) => last.next ?? undefined,
    // Pending ones change within seconds; otherwise new events still arrive, less often.
    refetchInterval: (q) => (q.state.data?.pages.some((p) => p.deliveries.some(stillMoving)) ? 2000 : 10_000),
  });
}
