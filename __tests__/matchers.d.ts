// Types for cdktf's jest matchers (registered at runtime by __tests__/setup.js).
import 'cdktf/lib/testing/adapters/jest';
