import { TelemetrySettingsPage } from "@/components/telemetry-settings/telemetry-settings-page";

export const metadata = { title: "Telemetry · Settings · Rein" };

export default function Page() {
  return <TelemetrySettingsPage />;
}
