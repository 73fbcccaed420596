import LommeCamera
import Testing
