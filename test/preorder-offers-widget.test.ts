import { describe, expect, it } from "vitest";
import { newOffer, offerCall } from "./helpers/offers.ts";
import { useTestEnv } from "./helpers/fixture.ts";

const env = useTestEnv();

const patch = (id: string, body: unknown) => offerCall(env.app, env.key, "PATCH", id, "/widget", body);
const action = (id: string, name: string, body: unknown = {}) => offerCall(env.app, env.key, "POST", id, `/widget/${name}`, body);

interface Widget {
  button: { text: string; colors: { enabled: boolean; text_color: string; background_color: string } };
  disclaimer: { enabled: boolean; text: string; text_color: string; background_color: string; border_radius: string };
  badge: { enabled: boolean; text: string; text_color: string; background_color: string };
}
const read = async (id: string) => (await offerCall(env.app, env.key, "GET", id, "/widget")).body as Widget;

describe("widget: GET and PATCH", () => {
  it("merges a deep-partial change and answers the group", async () => {
    const id = await newOffer(env);
    const before = await read(id);
    const answer = await patch(id, { badge: { enabled: true, text: "Soon" }, disclaimer: { border_radius: "0.5rem" } });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({
      ...before,
      badge: { ...before.badge, enabled: true, text: "Soon" },
      disclaimer: { ...before.disclaimer, border_radius: "0.5rem" },
    });
  });

  it("takes hex colours only (#rgb or #rrggbb) and CSS lengths", async () => {
    const id = await newOffer(env);
    const answer = await patch(id, {
      button: { colors: { text_color: "red", background_color: "#12345" } },
      badge: { text_color: 255 },
      disclaimer: { background_color: "#abc", border_radius: "4" },
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({
      errors: [
        "button.colors.text_color must be a hex color",
        "button.colors.background_color must be a hex color",
        "disclaimer.border_radius must be a CSS length such as 4px",
        "badge.text_color must be a hex color",
      ],
    });
    const fine = await patch(id, { button: { colors: { text_color: "#FFF", background_color: "#1a2B3c" } } });
    expect(fine.body).toMatchObject({ button: { colors: { text_color: "#FFF", background_color: "#1a2B3c" } } });
  });

  it("checks rules on the merged result: an enabled badge or disclaimer needs a text", async () => {
    const id = await newOffer(env);
    await patch(id, { badge: { text: "" } });
    const answer = await patch(id, { badge: { enabled: true } });
    expect(answer).toMatchObject({ status: 422, body: { errors: ["badge.text must not be empty while badge.enabled is true"] } });
    expect((await patch(id, { disclaimer: { enabled: true, text: "  " } })).body).toEqual({
      errors: ["disclaimer.text must not be empty while disclaimer.enabled is true"],
    });
    expect((await patch(id, { button: { text: "" } })).body).toEqual({ errors: ["button.text must not be empty"] });
  });
});

describe("widget named actions", () => {
  it("set_button_text answers the widget snapshot", async () => {
    const id = await newOffer(env, { widget: { badge: { enabled: true } } });
    const answer = await action(id, "set_button_text", { text: "Reserve yours" });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({
      button: { text: "Reserve yours", colors: { enabled: false, text_color: "#ffffff", background_color: "#000000" } },
      disclaimer: { enabled: false, text: "This item is on preorder. It ships on the delivery date shown." },
      badge: { enabled: true, text: "Preorder" },
    });
    expect((await read(id)).button.text).toBe("Reserve yours");
    expect((await action(id, "set_button_text", {})).body).toEqual({ errors: ["text is required"] });
    expect((await action(id, "set_button_text", { text: 3 })).body).toEqual({ errors: ["text must be a string"] });
  });

  it("set_button_colors turns custom colours on; disable_button_colors goes back to the theme's", async () => {
    const id = await newOffer(env);
    expect((await read(id)).button.colors.enabled).toBe(false);
    const set = await action(id, "set_button_colors", { background_color: "#ff0000" });
    expect(set.status).toBe(202);
    expect((set.body as Widget).button.colors).toEqual({ enabled: true, text_color: "#ffffff", background_color: "#ff0000" });
    const off = await action(id, "disable_button_colors");
    expect(off.status).toBe(202);
    expect((off.body as Widget).button.colors).toEqual({ enabled: false, text_color: "#ffffff", background_color: "#ff0000" });
    expect((await action(id, "disable_button_colors")).body).toEqual(off.body);
    const text = await action(id, "set_button_colors", { text_color: "#000" });
    expect((text.body as Widget).button.colors).toEqual({ enabled: true, text_color: "#000", background_color: "#ff0000" });
  });

  it("set_button_colors validates: hex colours, at least one", async () => {
    const id = await newOffer(env);
    expect((await action(id, "set_button_colors", {})).body).toEqual({ errors: ["text_color is required unless background_color is given"] });
    expect((await action(id, "set_button_colors", { text_color: "white" })).body).toEqual({ errors: ["text_color must be a hex color"] });
    expect((await read(id)).button.colors.enabled).toBe(false);
  });

  it("set_badge_text and set_badge_colors", async () => {
    const id = await newOffer(env);
    expect((await action(id, "set_badge_text", { text: "Coming soon" })).body).toMatchObject({ badge: { text: "Coming soon", enabled: false } });
    expect((await action(id, "set_badge_colors", { text_color: "#111111", background_color: "#eeeeee" })).body).toMatchObject({
      badge: { text_color: "#111111", background_color: "#eeeeee" },
    });
    expect((await action(id, "set_badge_colors", { background_color: "grey" })).body).toEqual({ errors: ["background_color must be a hex color"] });
  });

  it("set_disclaimer_text and set_disclaimer_colors", async () => {
    const id = await newOffer(env);
    expect((await action(id, "set_disclaimer_text", { text: "Ships in spring." })).body).toMatchObject({ disclaimer: { text: "Ships in spring." } });
    const colors = await action(id, "set_disclaimer_colors", { text_color: "#222", border_radius: "8px" });
    expect((colors.body as Widget).disclaimer).toMatchObject({ text_color: "#222", background_color: "#f5f5f5", border_radius: "8px" });
    expect((await action(id, "set_disclaimer_colors", {})).body).toEqual({
      errors: ["text_color is required unless background_color or border_radius is given"],
    });
    expect((await action(id, "set_disclaimer_text", { text: "" })).body).toEqual({ errors: ["text must not be empty"] });
  });
});
