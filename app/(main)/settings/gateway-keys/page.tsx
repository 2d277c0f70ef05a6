import type { Metadata } from "next";
import { GatewayKeysPage } from "@/components/settings/gateway-keys-page";

export const metadata: Metadata = { title: "Gateway keys" };

export default function Page() {
  return <GatewayKeysPage />;
}
