/// CRC-32C (Castagnoli, the polynomial of iSCSI, ext4 and many logs), computed eight bytes at a
/// time with lookup tables ("slicing by 8").
enum CRC32C {
    /// The reflected polynomial 0x1EDC6F41.
    private static let polynomial: UInt32 = 0x82F6_3B78

    /// Eight tables of 256 entries: `tables[k * 256 + b]` is the CRC of byte `b` followed by `k`
    /// zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ polynomial : crc >> 1 }
            tables[byte] = crc
        }
        for k in 1..<8 {
            for byte in 0..<256 {
                let previous = tables[(k - 1) * 256 + byte]
                tables[k * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// Continues a CRC over `bytes`: start with `checksum(bytes)` and feed further parts with
    /// `checksum(more, continuing: previous)`.
    ///
    /// - Complexity: O(*n*) in the number of bytes.
    static func checksum(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0) -> UInt32 {
        var crc = ~previous
        var index = 0
        let count = bytes.count
        tables.withUnsafeBufferPointer { t in
            while count - index >= 8 {
                let low = bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self).littleEndian ^ crc
                let high = bytes.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self).littleEndian
                crc =
                    t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((low >> 16) & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
                    ^ t[3 * 256 + Int(high & 0xFF)] ^ t[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((high >> 16) & 0xFF)] ^ t[Int(high >> 24)]
                index += 8
            }
            while index < count {
                crc = (crc >> 8) ^ t[Int((crc ^ UInt32(bytes[index])) & 0xFF)]
                index += 1
            }
        }
        return ~crc
    }

    /// The CRC-32C of `bytes`, continuing `previous` (see the other overload).
    ///
    /// - Complexity: O(*n*) in the number of bytes.
    static func checksum(_ bytes: [UInt8], continuing previous: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, continuing: previous) }
    }
}
