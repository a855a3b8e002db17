import { type Issue, fieldIssue } from "../../../core/errors.ts";
import { z } from "zod";
import type { AnyAction } from "../../../core/action.ts";
import { hexColor } from "../../../core/schemas.ts";
import { atLeastOne, cssLength, defineGroup, groupAction, groupGetAction, groupPatchAction, label, longText, requiredLabel } from "./model.ts";

/** The storefront widget: the preorder button (custom colours or the theme's), the disclaimer and the badge. */
export const widgetSchema = z.strictObject({
  button: z
    .strictObject({
      text: requiredLabel.default("Preorder"),
      colors: z
        .strictObject({
          // false: the theme's colours; the stored colours are kept for when custom colours come back on
          enabled: z.boolean().default(false),
          text_color: hexColor.default("#ffffff"),
          background_color: hexColor.default("#000000"),
        })
        .prefault({}),
    })
    .prefault({}),
  disclaimer: z
    .strictObject({
      enabled: z.boolean().default(false),
      text: longText.default("This item is on preorder. It ships on the delivery date shown."),
      text_color: hexColor.default("#333333"),
      background_color: hexColor.default("#f5f5f5"),
      border_radius: cssLength.default("4px"),
    })
    .prefault({}),
  badge: z
    .strictObject({
      enabled: z.boolean().default(false),
      text: label.default("Preorder"),
      text_color: hexColor.default("#ffffff"),
      background_color: hexColor.default("#000000"),
    })
    .prefault({}),
});

export type Widget = z.output<typeof widgetSchema>;

export const widgetGroup = defineGroup({
  key: "widget",
  schema: widgetSchema,
  rules(value) {
    const violations: Issue[] = [];
    if (value.badge.enabled && value.badge.text.trim() === "") violations.push(fieldIssue("badge.text", "must not be empty while badge.enabled is true"));
    if (value.disclaimer.enabled && value.disclaimer.text.trim() === "") {
      violations.push(fieldIssue("disclaimer.text", "must not be empty while disclaimer.enabled is true"));
    }
    return violations;
  },
});

/** The spec's answer of `set_button_text`: button (text, colors), disclaimer and badge (enabled, text). */
function widgetSnapshot(value: Widget): Record<string, unknown> {
  return {
    button: { text: value.button.text, colors: value.button.colors },
    disclaimer: { enabled: value.disclaimer.enabled, text: value.disclaimer.text },
    badge: { enabled: value.badge.enabled, text: value.badge.text },
  };
}

const colorsInput = z
  .strictObject({ text_color: hexColor.optional(), background_color: hexColor.optional() })
  .superRefine(atLeastOne(["text_color", "background_color"]));

export const WIDGET_ACTIONS: readonly AnyAction[] = [
  groupGetAction(
    widgetGroup,
    "The offer's storefront widget: button (text; colors: enabled, text_color, background_color), disclaimer (enabled, text, text_color, background_color, border_radius) and badge (enabled, text, text_color, background_color).",
  ),
  groupPatchAction(
    widgetGroup,
    "Changes widget settings: button, disclaimer, badge. Colours are hex (#rgb or #rrggbb); border_radius is a CSS length (4px). badge.text and disclaimer.text must not be empty while they are enabled.",
  ),
  groupAction(widgetGroup, {
    action: "set_button_text",
    description: "Sets the preorder button's text. Answers the widget snapshot: button (text, colors), disclaimer (enabled, text) and badge (enabled, text).",
    input: z.strictObject({ text: requiredLabel }),
    patch: (input) => ({ button: { text: input.text } }),
    respond: widgetSnapshot,
  }),
  groupAction(widgetGroup, {
    action: "set_button_colors",
    description:
      "Sets the button's text_color and/or background_color (hex; at least one). Setting either turns custom colours on (button.colors.enabled true); disable_button_colors goes back to the theme's. Answers the widget group.",
    input: colorsInput,
    patch: (input) => ({ button: { colors: { enabled: true, ...input } } }),
  }),
  groupAction(widgetGroup, {
    action: "disable_button_colors",
    description:
      "Turns the button's custom colours off (button.colors.enabled false): the storefront uses the theme's default button colours. The last custom colours are kept for set_button_colors. Idempotent. Answers the widget group.",
    input: z.strictObject({}),
    patch: () => ({ button: { colors: { enabled: false } } }),
  }),
  groupAction(widgetGroup, {
    action: "set_badge_text",
    description: "Sets the badge's text (whether the badge shows is badge.enabled, by PATCH). Answers the widget group.",
    input: z.strictObject({ text: requiredLabel }),
    patch: (input) => ({ badge: { text: input.text } }),
  }),
  groupAction(widgetGroup, {
    action: "set_badge_colors",
    description: "Sets the badge's text_color and/or background_color (hex; at least one). Answers the widget group.",
    input: colorsInput,
    patch: (input) => ({ badge: input }),
  }),
  groupAction(widgetGroup, {
    action: "set_disclaimer_text",
    description: "Sets the disclaimer's text (whether it shows is disclaimer.enabled, by PATCH). Answers the widget group.",
    input: z.strictObject({ text: longText.min(1) }),
    patch: (input) => ({ disclaimer: { text: input.text } }),
  }),
  groupAction(widgetGroup, {
    action: "set_disclaimer_colors",
    description:
      "Sets the disclaimer's text_color, background_color (hex) and/or border_radius (CSS length such as 4px); at least one. Answers the widget group.",
    input: z
      .strictObject({ text_color: hexColor.optional(), background_color: hexColor.optional(), border_radius: cssLength.optional() })
      .superRefine(atLeastOne(["text_color", "background_color", "border_radius"])),
    patch: (input) => ({ disclaimer: input }),
  }),
];
