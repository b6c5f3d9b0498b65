import fc from 'fast-check';

// One seed for every property in the mutation run: a mutant is killed or survives the same way on
// every rerun, so the incremental file stays true and scores compare between runs.
fc.configureGlobal({ seed: 20_240_901 });
