// What the demo shop sells: the order form lists it, and the scripted
// demo-browser agent orders what a run's goal names from it.

export interface CatalogueItem {
  /** As the shop writes it: "Rein sticker". */
  name: string;
  plural: string;
  /** Words a goal may use for it, singular and plural, lower case. */
  words: readonly string[];
}

export const DEMO_SHOP_CATALOGUE: readonly CatalogueItem[] = [
  { name: "Rein sticker", plural: "Rein stickers", words: ["sticker", "stickers"] },
  { name: "Rein mug", plural: "Rein mugs", words: ["mug", "mugs"] },
  { name: "Rein T-shirt", plural: "Rein T-shirts", words: ["t-shirt", "t-shirts", "tshirt", "tshirts", "tee", "tees"] },
  { name: "Rein tote bag", plural: "Rein tote bags", words: ["tote bag", "tote bags", "tote", "totes"] },
  { name: "Rein notebook", plural: "Rein notebooks", words: ["notebook", "notebooks"] },
];

/** The most of one item an order may ask for. */
export const MAX_ITEM_COUNT = 10;
