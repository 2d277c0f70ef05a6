import { ImprovementsSettingsPage } from "@/components/improvements-settings/improvements-settings-page";

export const metadata = { title: "Improvements · Settings · Rein" };

export default function Page() {
  return <ImprovementsSettingsPage />;
}
