import type { Metadata } from "next";
import { SecretsPage } from "@/components/secrets/secrets-page";

export const metadata: Metadata = { title: "Secrets" };

export default function Page() {
  return <SecretsPage />;
}
