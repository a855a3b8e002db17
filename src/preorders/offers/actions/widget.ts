import { z } from "zod";
import type { AnyAction } from "../../../core/action.ts";
import { hexColor } from "../../../core/schemas.ts";
import { type Widget, widgetGroup } from "../groups/widget.ts";
import { atLeastOne, cssLength, groupAction, groupGetAction, groupPatchAction, longText, requiredLabel } from "../model.ts";
import { widgetSnapshotOutput } from "../outputs.ts";

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
    { aliases: ["show the preorder widget settings", "read the preorder button badge and disclaimer"] },
  ),
  groupPatchAction(
    widgetGroup,
    "Changes widget settings: button, disclaimer, badge. Colours are hex (#rgb or #rrggbb); border_radius is a CSS length (4px). badge.text and disclaimer.text must not be empty while they are enabled.",
    {
      aliases: ["update the preorder widget settings", "turn the preorder badge on or off", "show or hide the preorder disclaimer"],
      notes: ["badge.text must not be empty while badge.enabled is true, nor disclaimer.text while disclaimer.enabled is true."],
    },
  ),
  groupAction(widgetGroup, {
    action: "set_button_text",
    description: "Sets the preorder button's text. Answers the widget snapshot: button (text, colors), disclaimer (enabled, text) and badge (enabled, text).",
    aliases: ["set the preorder button text", "rename the preorder button", "change the preorder button label"],
    notes: ["The text per display state (before launch, after launch, out of stock) is set by advanced/set_button_text_override."],
    output: widgetSnapshotOutput,
    input: z.strictObject({ text: requiredLabel }),
    patch: (input) => ({ button: { text: input.text } }),
    respond: widgetSnapshot,
  }),
  groupAction(widgetGroup, {
    action: "set_button_colors",
    description:
      "Sets the button's text_color and/or background_color (hex; at least one). Setting either turns custom colours on (button.colors.enabled true); disable_button_colors goes back to the theme's. Answers the widget group.",
    aliases: ["set the preorder button colors", "change the preorder button color"],
    notes: ["Setting either colour implicitly enables custom button colours."],
    input: colorsInput,
    patch: (input) => ({ button: { colors: { enabled: true, ...input } } }),
  }),
  groupAction(widgetGroup, {
    action: "disable_button_colors",
    aliases: ["use the theme colors for the preorder button", "reset the preorder button colors"],
    description:
      "Turns the button's custom colours off (button.colors.enabled false): the storefront uses the theme's default button colours. The last custom colours are kept for set_button_colors. Idempotent. Answers the widget group.",
    input: z.strictObject({}),
    patch: () => ({ button: { colors: { enabled: false } } }),
  }),
  groupAction(widgetGroup, {
    action: "set_badge_text",
    aliases: ["set the preorder badge text", "change the preorder badge label"],
    description: "Sets the badge's text (whether the badge shows is badge.enabled, by PATCH). Answers the widget group.",
    input: z.strictObject({ text: requiredLabel }),
    patch: (input) => ({ badge: { text: input.text } }),
  }),
  groupAction(widgetGroup, {
    action: "set_badge_colors",
    aliases: ["set the preorder badge colors", "change the preorder badge color"],
    description: "Sets the badge's text_color and/or background_color (hex; at least one). Answers the widget group.",
    input: colorsInput,
    patch: (input) => ({ badge: input }),
  }),
  groupAction(widgetGroup, {
    action: "set_disclaimer_text",
    aliases: ["set the preorder disclaimer text", "change the preorder disclaimer wording"],
    description: "Sets the disclaimer's text (whether it shows is disclaimer.enabled, by PATCH). Answers the widget group.",
    input: z.strictObject({ text: longText.min(1) }),
    patch: (input) => ({ disclaimer: { text: input.text } }),
  }),
  groupAction(widgetGroup, {
    action: "set_disclaimer_colors",
    aliases: ["set the preorder disclaimer colors", "style the preorder disclaimer box"],
    description:
      "Sets the disclaimer's text_color, background_color (hex) and/or border_radius (CSS length such as 4px); at least one. Answers the widget group.",
    input: z
      .strictObject({ text_color: hexColor.optional(), background_color: hexColor.optional(), border_radius: cssLength.optional() })
      .superRefine(atLeastOne(["text_color", "background_color", "border_radius"])),
    patch: (input) => ({ disclaimer: input }),
  }),
];
