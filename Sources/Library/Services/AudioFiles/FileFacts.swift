/// What each kind of file object tells the property table (FileProperties).
extension FileProperties.Facts {
    /// The facts every file object has once its header is known.
    init(_ kind: FileProperties.Kind, fileType: UInt32, format: StreamDescription, magicCookie: [UInt8], dataByteCount: Int64?,
         packetCount: Int64?, maximumPacketSize: UInt32, packetTable: PacketTable?) {
        self.init(kind)
        self.fileType = fileType
        self.format = format
        self.magicCookie = magicCookie
        self.dataByteCount = dataByteCount
        self.packetCount = packetCount
        self.maximumPacketSize = maximumPacketSize
        self.packetSizeUpperBound = maximumPacketSize
        self.packetTable = packetTable
    }
}

extension AudioFileReader {
    public var facts: FileProperties.Facts {
        var f = FileProperties.Facts(.read, fileType: fileType, format: format, magicCookie: magicCookie,
                                     dataByteCount: dataByteCount, packetCount: packetCount,
                                     maximumPacketSize: maximumPacketSize, packetTable: packetTable)
        f.dataOffset = dataOffset
        f.estimatedDuration = estimatedDuration
        f.bitRate = bitRate
        f.sourceBitDepth = sourceBitDepth
        return f
    }
}

extension AudioFileWriter {
    /// What is written so far (the counts grow with each packet).
    public var facts: FileProperties.Facts {
        FileProperties.Facts(.written, fileType: fileType, format: format, magicCookie: magicCookie, dataByteCount: byteCount,
                             packetCount: packetCount, maximumPacketSize: maximumPacketSize, packetTable: packetTable)
    }
}

extension AudioFileStreamParser {
    /// What the bytes parsed so far say: nothing of the data before its header is read.
    public var facts: FileProperties.Facts {
        guard let info else {
            var f = FileProperties.Facts(.stream)
            f.fileType = fileType
            return f
        }
        var f = FileProperties.Facts(.stream, fileType: info.fileType, format: info.format, magicCookie: info.magicCookie,
                                     dataByteCount: info.dataByteCount, packetCount: info.packetCount,
                                     maximumPacketSize: info.maximumPacketSize, packetTable: info.packetTable)
        f.packetSizeUpperBound = info.packetSizeUpperBound
        f.dataOffset = info.dataOffset
        f.readyToProducePackets = isReady
        f.bitRate = bitRate
        f.averageBytesPerPacket = averageBytesPerPacket
        return f
    }
}
