import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Data {
    /// The bytes of a file, as `Data(contentsOf:options:)` reads them, except that an empty regular file gives empty
    /// data without being read: on Linux, Foundation's read of an empty file leaks the 4 KiB buffer it reads into
    /// (every call; the binary store fuzzer found it). The stores and the model file reader read files that users
    /// and the daemon's folder hand them, so an empty one must cost nothing that stays.
    ///
    /// - Throws: what `Data(contentsOf:options:)` throws.
    package init(fileContentsOf url: URL, options: Data.ReadingOptions = []) throws {
        var info = stat()
        if url.isFileURL, stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size == 0 {
            self.init()
            return
        }
        try self.init(contentsOf: url, options: options)
    }
}
