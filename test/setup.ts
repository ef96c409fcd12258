import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workers in tests log warnings and errors only; state changes would drown the test output.
Runtime.install({ logger: new DefaultLogger('WARN') });
