/**
 * A number written in a JSON body, kept as its source text. Bodies are parsed so that no
 * number passes through a JS double (docs/contract.md, "Money and rounding": money never does):
 * "150.10" and 150.10 both reach validation as the text "150.10".
 */
export class JsonNumber {
  constructor(readonly text: string) {}
}
