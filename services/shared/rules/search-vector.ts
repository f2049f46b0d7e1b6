/** Parses `tsvector::text` ('lex':1A,5B 'other' …) into lexemes and their best weight. */
export function parseTsvector(text: string): { lexemes: string[]; weights: number[] } {
  const lexemes: string[] = [];
  const weights: number[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    if (text[i] !== "'") {
      i++;
      continue;
    }
    let lexeme = '';
    i++;
    for (;;) {
      const close = text.indexOf("'", i);
      if (close < 0) return { lexemes, weights };
      lexeme += text.slice(i, close);
      if (text[close + 1] === "'") {
        lexeme += "'";
        i = close + 2;
        continue;
      }
      i = close + 1;
      break;
    }
    let weight = 0;
    if (text[i] === ':') {
      i++;
      // Positions such as 1A,5B,7: the letter is the weight (none = D, the floor).
      while (i < n && text[i] !== ' ') {
        const ch = text[i]!;
        if (ch === 'A') weight = 3;
        else if (ch === 'B') weight = Math.max(weight, 2);
        else if (ch === 'C') weight = Math.max(weight, 1);
        i++;
      }
    }
    // A model's dash suffix ("PC120-6", "WA380-6") is read by PostgreSQL's parser as a signed
    // integer, '-6'; buyers type "pc120-6" (the words "pc120" and "6"), so it is indexed as '6'.
    if (/^-\d/.test(lexeme)) lexeme = lexeme.slice(1);
    const at = lexeme[0]! <= '9' && lexeme[0]! >= '0' ? lexemes.indexOf(lexeme) : -1;
    if (at >= 0) {
      weights[at] = Math.max(weights[at]!, weight);
      continue;
    }
    lexemes.push(lexeme);
    weights.push(weight);
  }
  return { lexemes, weights };
}
