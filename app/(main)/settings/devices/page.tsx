import type { Metadata } from "next";
import { DevicesPage } from "@/components/settings/devices-page";

export const metadata: Metadata = { title: "Devices" };

export default function Page() {
  return <DevicesPage />;
}
