import { describe, expect, it } from "vitest";
import { AppInstallation } from "../src/platform/emulator/app-installation.ts";

describe("the emulator's app installation", () => {
  it("keeps an uninstall in its saved state; a state saved before uninstalling existed reads installed", () => {
    const installation = new AppInstallation();
    installation.uninstall();
    const restored = new AppInstallation();
    restored.restore(installation.saved());
    expect(restored.isInstalled()).toBe(false);
    const { installed: _dropped, ...older } = installation.saved();
    restored.restore(older);
    expect(restored.isInstalled()).toBe(true);
  });
});
