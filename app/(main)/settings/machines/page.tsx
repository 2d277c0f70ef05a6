import type { Metadata } from "next";
import { MachinesPage } from "@/components/settings/machines-page";

export const metadata: Metadata = { title: "Machines" };

export default function Page() {
  return <MachinesPage />;
}
