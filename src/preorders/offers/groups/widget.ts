import { type Issue, fieldIssue } from "../../../core/errors.ts";
import { z } from "zod";
import { hexColor } from "../../../core/schemas.ts";
import { cssLength, defineGroup, label, longText, requiredLabel } from "../model.ts";
import { widgetOutput } from "../outputs.ts";

/** The storefront widget: the preorder button (custom colours or the theme's), the disclaimer and the badge. */
const widgetSchema = z.strictObject({
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
  output: widgetOutput,
  rules(value) {
    const violations: Issue[] = [];
    if (value.badge.enabled && value.badge.text.trim() === "") violations.push(fieldIssue("badge.text", "must not be empty while badge.enabled is true"));
    if (value.disclaimer.enabled && value.disclaimer.text.trim() === "") {
      violations.push(fieldIssue("disclaimer.text", "must not be empty while disclaimer.enabled is true"));
    }
    return violations;
  },
});
