extension Optional {
    /// The wrapped value, or throws `error` for `nil`.
    func orThrow(_ error: @autoclosure () -> some Error) throws -> Wrapped {
        guard let self else { throw error() }
        return self
    }
}
