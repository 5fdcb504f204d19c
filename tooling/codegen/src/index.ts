export { PRODUCTS, findProduct, REPO_ROOT, type Product, type ProductId } from './products.ts';
export { generateProduct, listFiles, regenerateProduct } from './generate.ts';
export { findStaleFiles, type StaleFile } from './check.ts';
