import { DataSettingsPage } from "@/components/data-settings/data-settings-page";

export const metadata = { title: "Data · Settings · Rein" };

export default function Page() {
  return <DataSettingsPage />;
}
