/** Work in progress: this package is being built (see the issue tracker). */
export {};
