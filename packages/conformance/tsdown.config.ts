import { libraryConfig } from '../../tsdown.base.ts';

export default libraryConfig(['index', 'cli', 'create-ruleset', 'ruleset']);
