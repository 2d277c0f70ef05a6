import type { Metadata } from "next";
import { ExtensionsList, ProposeExtension } from "@/components/extensions/extensions-list";

export const metadata: Metadata = { title: "Extensions" };

export default function Page() {
  return (
    <div className="page page-wide" data-testid="extensions-page">
      <div className="page-header" style={{ flexWrap: "wrap" }}>
        <div className="page-title-block">
          <h1>Extensions</h1>
          <p>
            Packages of tools, event hooks and skills with their own tests. Each is built and every test runs in the sandbox; only one whose
            tests all pass is installed, for every agent, after an admin&apos;s approval when Settings → Improvements asks for one.
          </p>
        </div>
        <ProposeExtension />
      </div>
      <ExtensionsList />
    </div>
  );
}
