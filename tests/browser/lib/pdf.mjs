// Reads a PDF the browser printed (pdfjs-dist), for the tests of printed cards and menus:
// its own module, so that only they load pdf.js.
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";

/** The PDF's page count, its first page's size in points, and the text of every page. */
export async function readPdf(bytes) {
  const doc = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, useSystemFonts: false }).promise;
  const [, , width, height] = (await doc.getPage(1)).view;
  let text = "";
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    text += (await page.getTextContent()).items.map((i) => i.str).join(" ") + "\n";
  }
  const pages = doc.numPages;
  await doc.destroy();
  return { pages, width: Math.round(width), height: Math.round(height), text };
}
