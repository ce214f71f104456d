// Registers cdktf's jest matchers (toHaveResourceWithProperties, ...).
const { Testing } = require('cdktf');
Testing.setupJest();
