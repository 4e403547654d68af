import { countryForCurrency, portfolioFields } from '../demo/portfolio-fields.ts';
import { parseFlags, printJson, requireFlag } from './args.ts';
import type { Command } from './context.ts';
import { CliError } from './errors.ts';
import { findOwner } from './operations.ts';
import { withStorage } from './storage.ts';
import { validCountry, validCurrency, validEmail, validName } from './validate.ts';

export const portfolioCreate: Command = {
  usage: 'folio portfolio create --owner E --name N [--currency C] [--country C] [--json]',
  async run(args, { config, io, clock }) {
    const { values } = parseFlags(args, {
      owner: { type: 'string' },
      name: { type: 'string' },
      currency: { type: 'string' },
      country: { type: 'string' },
      json: { type: 'boolean' },
    });
    const ownerEmail = validEmail(requireFlag(values.owner, 'owner', 'portfolio create'));
    const name = validName(requireFlag(values.name, 'name', 'portfolio create'), 'portfolio');
    const currencyCode = values.currency === undefined ? undefined : validCurrency(values.currency);
    const countryCode = values.country === undefined ? undefined : validCountry(values.country);
    if (currencyCode !== undefined && countryCode === undefined && countryForCurrency(currencyCode) === undefined) {
      throw new CliError(`portfolio create --currency ${currencyCode} needs --country as well: ${currencyCode} does not name one country`);
    }

    const portfolio = await withStorage(config, async (storage) => {
      const owner = await findOwner(storage, ownerEmail);
      const now = clock.now();
      return storage.portfolios.createPortfolio(owner.id, portfolioFields({ name, currencyCode, countryCode, now }), now);
    });
    if (values.json) {
      printJson(io.out, {
        id: portfolio.id, name: portfolio.name, owner: ownerEmail, currency_code: portfolio.currencyCode,
        country_code: portfolio.countryCode, financial_year_end: portfolio.financialYearEnd,
        inception_date: portfolio.inceptionDate, tz_name: portfolio.tzName,
      });
    } else {
      io.out(`Created portfolio "${portfolio.name}" (id ${portfolio.id}, ${portfolio.currencyCode}, ${portfolio.countryCode}) for ${ownerEmail}.`);
    }
  },
};
